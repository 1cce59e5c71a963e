"""Raw input: `fn.io.file.read`."""

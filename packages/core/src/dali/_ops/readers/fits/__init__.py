"""`fn.experimental.readers.fits`: FITS files, their HDUs read as arrays (`reader`)."""

"""`fn.readers.nemo_asr`: NeMo ASR JSON-lines manifests (`reader`)."""

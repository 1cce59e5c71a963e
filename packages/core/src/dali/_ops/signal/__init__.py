"""Signal processing: short-time spectra (`spectrogram`), power spectra and decibel conversion."""

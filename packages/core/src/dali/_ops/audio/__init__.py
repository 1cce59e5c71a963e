"""Audio: decoding (`decoders.audio`), resampling, pre-emphasis, silence detection, mel filter banks and MFCC."""

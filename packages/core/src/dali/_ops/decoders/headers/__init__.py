"""What is read of an encoded image before decoding it: the JPEG marker walk (`jpeg_walk`,
standard library only: the read workers load it by path), the header batch (`jpeg_header`) and
display sizes (`image_sizes`)."""

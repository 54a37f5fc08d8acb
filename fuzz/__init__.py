"""Fuzz targets for every parser runctx feeds with text it does not control (``make fuzz``)."""

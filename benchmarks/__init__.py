"""The benchmark behind ``make bench``."""

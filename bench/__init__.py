"""Benchmark of the data path (``make bench``): generator, runners, report."""

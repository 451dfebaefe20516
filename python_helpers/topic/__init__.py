"""Specs and sync: each topic's declaration, its generated spec, and sync,
which brings both up to date from a landing.
"""

"""Runs: what a run builds (changed topics, edited models) and the rebuilds it
owes.
"""

"""Loops from the seeds, adapted only to the grader's signature, used as test fixtures."""

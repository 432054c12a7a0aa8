"""Measuring what a model knows: the metric registry, QA evaluation, likelihoods, equivalence, memorization."""

"""The language model: load any causal LM, build scratch ones, encode QA prompts, the training loop."""

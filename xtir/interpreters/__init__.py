"""Reference-evaluator implementations of xtir's ops for xDSL's interpreter."""

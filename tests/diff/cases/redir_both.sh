{ echo out; echo err >&2; } &> both; sort both

echo hello > f; cat < f

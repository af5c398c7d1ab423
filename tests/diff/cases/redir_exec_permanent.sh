exec > f; echo captured; exec >&2; cat f >&2

echo a#b; echo a #comment

echo visible; echo hidden >&-; echo "after $?"

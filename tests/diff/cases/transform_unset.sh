echo "[${nope@Q}]" "[${nope@U}]"

cat <<-EOF
	indented
		more
	EOF

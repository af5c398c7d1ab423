false
echo "${PIPESTATUS[@]}"
(exit 3) | (exit 4)
echo "${PIPESTATUS[0]} ${PIPESTATUS[1]}"

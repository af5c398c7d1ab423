[[ ABC == abc ]] || echo case-sensitive

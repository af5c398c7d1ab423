a=(plain "with space" '$dollar' 'quote"d' $'tab\there')
declare -p a

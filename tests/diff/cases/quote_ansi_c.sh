echo $'tab\there' $'nl\nx' $'\x41\101'

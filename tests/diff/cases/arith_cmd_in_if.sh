n=7
if (( n % 2 )); then echo odd; else echo even; fi
if (( n > 10 )); then echo big; elif (( n > 5 )); then echo mid; fi

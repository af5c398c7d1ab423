x=hello; y=WORLD; echo ${x^} ${x^^} ${y,} ${y,,}

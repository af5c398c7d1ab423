x=a-b-c; echo ${x//-}

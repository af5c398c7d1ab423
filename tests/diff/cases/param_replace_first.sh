x=aXbXc; echo ${x/X/-}

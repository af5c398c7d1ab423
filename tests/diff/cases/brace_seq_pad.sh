echo {08..11}

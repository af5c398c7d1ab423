echo hi > f; echo $(0< f)

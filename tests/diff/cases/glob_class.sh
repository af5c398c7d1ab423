touch A1 b2 C3; echo [[:upper:]]*

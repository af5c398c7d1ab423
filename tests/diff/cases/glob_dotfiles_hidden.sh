touch .hidden visible; echo *; echo .h*

function g { echo kw; }; g

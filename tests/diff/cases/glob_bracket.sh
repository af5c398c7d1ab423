touch x1 x2 x3; echo x[12] x[!1]

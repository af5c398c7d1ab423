false && echo x || echo y; true || false && echo z

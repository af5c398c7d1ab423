test x && echo yes; test "" || echo no

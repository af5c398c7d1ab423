echo abc > f; cat 0<> f

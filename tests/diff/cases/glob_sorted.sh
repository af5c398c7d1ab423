touch zeta alpha mid; echo *

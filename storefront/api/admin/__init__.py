"""The staff's routes: signing in (`session`), products (`products`) and orders (`orders`), each
beside its request and answer models; every route but the sign-in needs the admin session."""

/* A shared library that is not a backend: it exports a function, but not mxconform_backend_v1.
 * mxconform must refuse to load it, naming the missing symbol. */
int mxconform_not_a_backend(void) { return 1; }

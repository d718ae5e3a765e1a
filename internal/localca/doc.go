// Package localca makes a throwaway certificate authority and serving
// certificates for a webhook run outside a cluster — make demo and the
// tests — where cert-manager would do it in a real one. The API server
// trusts the CA through a webhook configuration's caBundle.
package localca

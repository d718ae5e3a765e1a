// Package selfsigned issues and rotates crdguard-webhook's own TLS
// certificates, for clusters without cert-manager.
//
// A Manager keeps a CA and a serving certificate in one Secret, serves the
// certificate from memory (GetCertificate; a renewed one is served on the
// next handshake), and keeps the caBundle of every webhook in the named
// ValidatingWebhookConfigurations and MutatingWebhookConfigurations equal to
// the Secret's ca.crt — also after something else (a helm upgrade) reset it.
//
// Renewal happens at two thirds of a certificate's lifetime. The serving
// certificate is simply reissued by the same CA. A CA is replaced in three
// steps, so that no client ever holds a bundle that does not verify what is
// served:
//
//  1. a new CA is generated and added to ca.crt (which then holds both) and
//     injected into the configurations; the serving certificate stays;
//  2. after Config.Overlap, and only once the configurations hold both CAs,
//     the serving certificate is reissued by the new CA;
//  3. after another Config.Overlap — time for every replica to serve the new
//     certificate — the old CA leaves ca.crt.
//
// Every replica runs a Manager on the same Secret. Each reads the Secret,
// computes the next state and writes it with the resourceVersion it read: a
// replica that loses a race (Conflict, or AlreadyExists on creation) reads
// the winner's Secret and serves that. The Secret is watched, so every
// replica serves what it holds within moments.
//
// It needs create on Secrets in the Secret's namespace, and get, list,
// watch and update on the Secret and on each configuration, which can all
// be limited to those names: every watch selects its one object by
// metadata.name.
//
// Renewal can be forced without waiting: annotate the Secret with
// crdguard.dev/renew=serving (reissue the serving certificate now) or
// crdguard.dev/renew=ca (start a CA rotation now; the overlaps still
// apply). The Manager removes the annotation when it acts on it.
package selfsigned

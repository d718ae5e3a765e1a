package diff

import "strings"

var storedVersionRemoved = Check{
	Name: "stored-version-removed",
	Doc:  "a version listed in the old CRD's status.storedVersions is not in the new CRD",
	// The rest of status (conditions, acceptedNames) is written by the
	// server, not by the author: a CRD read back from a cluster differs
	// there from its source without any change of meaning.
	Claims: []string{"status"},
	CRD: func(p *CRDPair) []Change {
		var out []Change
		// Without a status (a CRD from a file) the storage version is the
		// one stored: the server's defaulting says the same.
		for _, name := range p.Old.Status.StoredVersions {
			if v, _ := p.NewVersion(name); v != nil {
				continue
			}
			out = append(out, Change{
				Impact: Breaking, Version: name, Path: "status.storedVersions",
				Old:     strings.Join(p.Old.Status.StoredVersions, ","),
				Message: "kube-apiserver rejects the update: objects may still be stored as " + name + "; migrate them and trim status.storedVersions first",
			})
		}
		return out
	},
}

package diff

import "reflect"

var conversionChanged = Check{
	Name:   "conversion-changed",
	Doc:    "the conversion strategy or webhook changed",
	Claims: []string{"spec.conversion"},
	CRD: func(p *CRDPair) []Change {
		o, n := p.Old.Spec.Conversion, p.New.Spec.Conversion
		if reflect.DeepEqual(o, n) {
			return nil
		}
		ch := Change{Impact: Warning, Path: "spec.conversion", Old: render(o, o != nil), New: render(n, n != nil),
			Message: "reads of every version other than the stored one go through the new conversion: check that it is deployed and round-trips"}
		if o != nil && n != nil && o.Strategy != n.Strategy {
			ch.Path = "spec.conversion.strategy"
			ch.Old, ch.New = string(o.Strategy), string(n.Strategy)
			ch.Impact = Breaking
			ch.Message = "objects of every non-storage version are now converted differently; clients may read different data"
		}
		return []Change{ch}
	},
}

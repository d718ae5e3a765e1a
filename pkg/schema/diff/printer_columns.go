package diff

import "reflect"

var printerColumnsChanged = Check{
	Name:   "printer-columns-changed",
	Doc:    "additionalPrinterColumns changed",
	Claims: []string{"spec.versions.*.additionalPrinterColumns"},
	CRD: func(p *CRDPair) []Change {
		var out []Change
		for _, v := range p.CommonVersions() {
			o, n := v.Old.AdditionalPrinterColumns, v.New.AdditionalPrinterColumns
			if reflect.DeepEqual(o, n) {
				continue
			}
			out = append(out, Change{Impact: Info, Version: v.Name, Path: v.Path.Child("additionalPrinterColumns").String(),
				Old: render(o, o != nil), New: render(n, n != nil),
				Message: "`kubectl get` shows different columns; scripts parsing its table output may break"})
		}
		return out
	},
}

package diff

import (
	"slices"
	"strings"
)

var listTypeChanged = Check{
	Name:   "list-type-changed",
	Doc:    "x-kubernetes-list-type, x-kubernetes-list-map-keys or x-kubernetes-map-type changed",
	Claims: []string{"x-kubernetes-list-type", "x-kubernetes-list-map-keys", "x-kubernetes-map-type"},
	Property: func(n *Node) []Change {
		var out []Change
		// An unset list type means atomic: making that explicit is no change
		// of behaviour, but it is still reported.
		oldType, newType := deref(n.Old.XListType), deref(n.New.XListType)
		if oldType != newType {
			ch := Change{Impact: Breaking, Path: n.Path.Child("x-kubernetes-list-type").String(), Old: oldType, New: newType,
				Message: "server-side apply merges the list differently, and set or map lists reject stored duplicates on their next update"}
			if orAtomic(oldType) == orAtomic(newType) {
				ch.Impact, ch.Message = Info, "atomic either way: no change of behaviour"
			} else if newType == "atomic" || newType == "" {
				ch.Message = "server-side apply now replaces the whole list: managers that co-own items overwrite each other"
			}
			out = append(out, ch)
		}
		if !slices.Equal(n.Old.XListMapKeys, n.New.XListMapKeys) {
			out = append(out, Change{Impact: Breaking, Path: n.Path.Child("x-kubernetes-list-map-keys").String(),
				Old: strings.Join(n.Old.XListMapKeys, ","), New: strings.Join(n.New.XListMapKeys, ","),
				Message: "items are identified by other keys: stored lists with duplicate keys are rejected and server-side apply merges differently"})
		}
		oldMap, newMap := deref(n.Old.XMapType), deref(n.New.XMapType)
		if oldMap != newMap {
			out = append(out, Change{Impact: Breaking, Path: n.Path.Child("x-kubernetes-map-type").String(), Old: oldMap, New: newMap,
				Message: "server-side apply merges the map differently: field managers may overwrite each other"})
		}
		return out
	},
}

func orAtomic(listType string) string {
	if listType == "" {
		return "atomic"
	}
	return listType
}

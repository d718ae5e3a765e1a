package diff

var defaultChanged = Check{
	Name:   "default-changed",
	Doc:    "a default was added, changed or removed",
	Claims: []string{"default"},
	Property: func(n *Node) []Change {
		o, nw := jsonText(n.Old.Default), jsonText(n.New.Default)
		if o == nw {
			return nil
		}
		ch := Change{Path: n.Path.Child("default").String(), Old: o, New: nw}
		switch {
		case o == "":
			ch.Impact = Warning
			ch.Message = "objects without the field get the default when next read or written: controllers see a value they did not before"
		case nw == "":
			ch.Impact = Warning
			ch.Message = "new objects no longer get a value; stored ones keep the old default"
		default:
			ch.Impact = Breaking
			ch.Message = "objects that relied on the old default change meaning: new and rewritten objects get the new value"
		}
		return []Change{ch}
	},
}

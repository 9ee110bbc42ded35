package observe

// markSet holds a state's marks (the decisions its status is worked out
// from: markCreated, markIntent…) and its flags, the latest of each name,
// in one slice: the marks first, then the flags, each by name. A state
// has a few of them at most (render gives one an intent and a created
// mark), and a map of them allocated a kilobyte per state, whose every
// fresh page a short-lived process pays a fault for (reconcile right
// after a bulk render touches a thousand states); one slice, not two,
// also keeps State in its 288-byte size class.
type markSet []namedMark

type namedMark struct {
	name string
	flag bool
	mark
}

// before orders the set: marks, then flags, each by name.
func (n *namedMark) before(flag bool, name string) bool {
	if n.flag != flag {
		return !n.flag
	}
	return n.name < name
}

// find is where the mark (or flag) name is, or would be.
func (ms markSet) find(flag bool, name string) (int, bool) {
	i := 0
	for i < len(ms) && ms[i].before(flag, name) {
		i++
	}
	return i, i < len(ms) && ms[i].flag == flag && ms[i].name == name
}

// get is the mark (or flag) name.
func (ms markSet) get(flag bool, name string) (mark, bool) {
	if i, ok := ms.find(flag, name); ok {
		return ms[i].mark, true
	}
	return mark{}, false
}

// set keeps m as the mark (or flag) name when there is none yet or m is
// the later one.
func (ms *markSet) set(flag bool, name string, m mark) {
	i, ok := ms.find(flag, name)
	if ok {
		if m.after((*ms)[i].stamp) {
			(*ms)[i].mark = m
		}
		return
	}
	*ms = append(*ms, namedMark{})
	copy((*ms)[i+1:], (*ms)[i:])
	(*ms)[i] = namedMark{name: name, flag: flag, mark: m}
}

// marks and flags are the two parts of the set.
func (ms markSet) marks() markSet {
	i, _ := ms.find(true, "")
	return ms[:i]
}

func (ms markSet) flags() markSet {
	i, _ := ms.find(true, "")
	return ms[i:]
}

package domain

// typeNames are Redis's TYPE answers as people read them.
var typeNames = map[string]string{
	"string": "string", "list": "list", "set": "set", "zset": "sorted set", "hash": "hash", "stream": "stream",
}

// DescribeType names a Redis type (a TYPE answer: "zset", "list", ...) for people: "sorted set".
func DescribeType(typ string) string {
	if name, ok := typeNames[typ]; ok {
		return name
	}
	return typ
}

// WrongTypeError is the CodeWrongType error of a key at one of zpulse's names that holds
// typ (a TYPE answer) where the call works on want: key "queue:rq" is a list, not a sorted set.
func WrongTypeError(key, typ, want string) *Error {
	return Errorf(CodeWrongType, "key %q is a %s, not a %s: it belongs to something else, so zpulse neither reads nor changes it", key, DescribeType(typ), DescribeType(want))
}

// NotASortedSet is what a list shows for a name whose key holds typ instead of a sorted set:
// "not a sorted set (a list)".
func NotASortedSet(typ string) string { return "not a sorted set (a " + DescribeType(typ) + ")" }

// Package winjob holds a Windows process tree in a Job Object: the job is
// kill-on-close, so the tree dies with the last handle to it (the holder
// crashed or was killed), breakaway is not allowed, and a tree that ended
// normally is released so that daemons it started survive.
//
// The package is empty on other systems.
package winjob

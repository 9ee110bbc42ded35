package capture

// Floor is the least recall and the most noise a set may show.
type Floor struct {
	Recall float64 // found / lessons, at least
	Noise  float64 // kept but no lesson / kept, at most
}

// Floors are the figures the offline extractors reached on the labelled
// set, rounded against them to two places: a change that loses a lesson
// or keeps more noise fails TestFloors, and the floors move up only when
// the figures do. The targets (recall 0.8, noise 0.1) are below
// both.
var Floors = map[string]Floor{
	Dev:     {Recall: 0.99, Noise: 0.02},
	Holdout: {Recall: 0.97, Noise: 0.03},
}

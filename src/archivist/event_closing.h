// Closing commitments and reminders (spec 40 §4, issue 44 §2): "I submitted
// the Q4 budget yesterday" closes "I need to submit the Q4 budget by
// Friday". Both sentences are read into a Task — the action's verb and the
// words of what it acts on — and a statement of something done closes an
// open task with the same verb and overlapping objects. Pure functions; no
// storage. Thread-safe. English; a sentence in another language gives no
// task and no done statement, so nothing closes by mistake.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mnemo::archivist {

// An action: its verb as a stem (text::Stem of the lemma: "submitted",
// "submitting" and "submit" are all "submit"; "sent" is "send"), and the
// stems of the content words it acts on (stop words, pronouns and time
// words — "friday", "tomorrow", "next week" — left out).
struct Task {
  std::string verb;  // "" when none is named ("don't forget the milk")
  std::vector<std::string> objects;
  // A done statement whose verb only says it is finished ("I finished the
  // slides", "the report is done"): it closes a task of any verb.
  bool completion = false;
  // A done statement whose object is a pronoun ("I submitted it"): it
  // closes the newest open task with its verb.
  bool pronoun = false;
};

// The task a commitment or a reminder states: the verb after the first
// marker of intent or obligation ("need to", "have to", "must", "should",
// "will", "'ll", "going to", "plan to", "promise to", "remind me to",
// "remember to", "don't forget to"; "don't forget" and "remind me about"
// name no verb), adverbs and "be" skipped, and the content words after it
// up to "so", "because", "but", "while" or the sentence's end. nullopt when
// the sentence has no marker, or the marker is negated ("I will not …").
std::optional<Task> TaskOf(std::string_view sentence);

// What the user says they have done, one Task per clause that states it:
// the user (I, we, or no subject at all: "Booked the flights!") and a verb
// in the past ("submitted", "have sent", "finally paid"), or a thing and
// its state ("the Q4 budget is submitted", "the slides are done").
// Questions, negations ("I haven't sent it"), hypotheticals, another
// person's doing ("my brother booked it"), a past verb followed by "to"
// ("I tried to call", "I forgot to pay") and verbs of a missed or a mere
// start ("forgot", "missed", "failed", "started", "postponed") give none.
std::vector<Task> DoneStatements(std::string_view sentence);

// Whether `done` closes `task`: the verbs are the same (or `done` is a
// completion, or `task` names no verb) and the objects overlap in at least
// half the words of the shorter of the two (at least one); a done
// statement whose only object is a pronoun ("I submitted it") closes any
// task of its verb (the caller closes the newest one).
bool Closes(const Task& done, const Task& task);

}  // namespace mnemo::archivist

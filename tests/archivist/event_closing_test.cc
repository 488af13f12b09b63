#include "archivist/event_closing.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace mnemo::archivist {
namespace {

// Whether the first done statement of `done` closes the task of `task`.
bool DoneCloses(const std::string& done, const std::string& task) {
  const std::optional<Task> t = TaskOf(task);
  const std::vector<Task> d = DoneStatements(done);
  if (!t || d.empty()) return false;
  return Closes(d.front(), *t);
}

TEST(TaskOf, ReadsTheVerbAfterAMarkerAndTheObjectsAfterIt) {
  const std::optional<Task> t = TaskOf("I have to renew the car insurance before Thursday.");
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->verb, "renew");
  EXPECT_EQ(t->objects, (std::vector<std::string>{"car", "insur"}));
  const std::optional<Task> r = TaskOf("Don't forget the oat milk");
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->verb, "");
  EXPECT_EQ(r->objects, (std::vector<std::string>{"oat", "milk"}));
  const std::optional<Task> m = TaskOf("Remind me to call the plumber tomorrow");
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->verb, "call");
  EXPECT_EQ(m->objects, (std::vector<std::string>{"plumber"}));
}

TEST(TaskOf, NoMarkerOrANegatedOneIsNoTask) {
  EXPECT_FALSE(TaskOf("The invoice went out on Monday.").has_value());
  EXPECT_FALSE(TaskOf("I will not sign that lease.").has_value());
  EXPECT_FALSE(TaskOf("I'll be in Porto next week.").has_value());
}

TEST(DoneStatements, PastVerbsOfTheUserAreDone) {
  const std::vector<Task> d = DoneStatements("I finally mailed the tax forms this morning.");
  ASSERT_EQ(d.size(), 1U);
  EXPECT_EQ(d[0].verb, "mail");
  EXPECT_EQ(d[0].objects, (std::vector<std::string>{"tax", "form"}));
  ASSERT_EQ(DoneStatements("We've paid the electricity bill.").size(), 1U);
  EXPECT_EQ(DoneStatements("We've paid the electricity bill.")[0].verb, "pay");
  ASSERT_EQ(DoneStatements("Booked the train tickets!").size(), 1U);
  const std::vector<Task> passive = DoneStatements("The grant proposal is submitted.");
  ASSERT_EQ(passive.size(), 1U);
  EXPECT_EQ(passive[0].objects, (std::vector<std::string>{"grant", "propos"}));
}

TEST(DoneStatements, NotDoneStatementsGiveNothing) {
  for (const char* sentence :
       {"I haven't mailed the tax forms yet.", "Did you mail the tax forms?",
        "If I mailed the forms today they would arrive.", "My sister mailed the tax forms.",
        "I tried to mail the tax forms.", "I forgot the tax forms.",
        "I need to mail the tax forms.", "I started the tax forms.", "It's done."}) {
    EXPECT_TRUE(DoneStatements(sentence).empty()) << sentence;
  }
}

TEST(Closes, SameVerbAndOverlappingObjectsCloseATask) {
  EXPECT_TRUE(DoneCloses("I renewed the car insurance yesterday.",
                         "I have to renew the car insurance before Thursday."));
  EXPECT_TRUE(DoneCloses("Sent the slides to Priya.", "I'll send Priya the slides tonight."));
  EXPECT_TRUE(DoneCloses("I bought the oat milk.", "Don't forget the oat milk."));
  EXPECT_TRUE(
      DoneCloses("I finished the quarterly report.", "I need to write the quarterly report."));
  EXPECT_TRUE(DoneCloses("The quarterly report is done.", "I must write the quarterly report."));
  // Another verb, or other things, close nothing.
  EXPECT_FALSE(DoneCloses("I cancelled the car insurance.",
                          "I have to renew the car insurance before Thursday."));
  EXPECT_FALSE(DoneCloses("I renewed my library card.",
                          "I have to renew the car insurance before Thursday."));
  EXPECT_FALSE(DoneCloses("I bought the train tickets.", "Don't forget the oat milk."));
}

TEST(Closes, APronounClosesATaskOfItsVerb) {
  const std::vector<Task> d = DoneStatements("I renewed it this morning.");
  ASSERT_EQ(d.size(), 1U);
  EXPECT_TRUE(d[0].pronoun);
  EXPECT_TRUE(Closes(d[0], *TaskOf("I have to renew the car insurance before Thursday.")));
  EXPECT_FALSE(Closes(d[0], *TaskOf("I need to book the dentist.")));
}

}  // namespace
}  // namespace mnemo::archivist

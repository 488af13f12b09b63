// Profile slots (slots.h, spec 40 §5): one test a rule, from sentences of
// their own (the profile eval sets measure the whole).
#include "archivist/profile/slots.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "archivist/profile/profile.h"

namespace mnemo::archivist {
namespace {

// "key=value" of each context statement and "pref:key=value" of each
// preference, in order.
std::vector<std::string> Read(std::string_view sentence, bool greeting = false) {
  std::vector<std::string> out;
  for (const SlotStatement& s : ExtractSlots(sentence, greeting).statements) {
    out.push_back((s.preference ? "pref:" : "") + s.key + "=" + s.value);
  }
  return out;
}

using V = std::vector<std::string>;

TEST(Slots, EachClauseIsACandidateOfItsOwn) {
  EXPECT_EQ(Read("I'm based in Toronto and I work for Northwind Traders."),
            (V{"location=Toronto", "employer=Northwind Traders"}));
  EXPECT_EQ(Read("I relocated to Denver; my boss is Ravi Shah."),
            (V{"location=Denver", "manager=Ravi Shah"}));
}

TEST(Slots, FillersAndAdverbsAroundACueAreSkipped) {
  EXPECT_EQ(Read("Remember that I live in Nairobi."), V{"location=Nairobi"});
  EXPECT_EQ(Read("I work remotely for Shopify from Halifax."), V{"employer=Shopify"});
  EXPECT_EQ(Read("I just started at Stripe as a designer."),
            (V{"employer=Stripe", "role=designer"}));
  EXPECT_EQ(Read("I speak a little French."), V{"language=French"});
  EXPECT_EQ(Read("我老公叫李明。"), V{"partner=李明"});
}

TEST(Slots, OnlyTheUsersOwnFacts) {
  EXPECT_EQ(Read("My sister works at Google and lives in Dublin."), V{});
  EXPECT_EQ(Read("Our neighbour is a pilot."), V{});
  // The user's relation is the user's fact; what the relation is, is not.
  EXPECT_EQ(Read("My husband Idris is a pilot."), V{"partner=Idris"});
  EXPECT_EQ(Read("Kiwi chewed my headphones again."), V{});
  EXPECT_EQ(Read("我哥哥住在北京。"), V{});
}

TEST(Slots, ThePastHypotheticalsPlansQuestionsAndRequestsGiveNothing) {
  EXPECT_EQ(Read("When I was a student I lived in Tromso."), V{});
  EXPECT_EQ(Read("Back in college I worked at Initech."), V{});
  EXPECT_EQ(Read("I used to be keto."), V{});
  EXPECT_EQ(Read("I was paleo for a while."), V{});
  // "… ago" alone says when it began, not that it is over.
  EXPECT_EQ(Read("I joined Nokia two years ago."), V{"employer=Nokia"});
  EXPECT_EQ(Read("以前我住在西安。"), V{});
  EXPECT_EQ(Read("If I moved to Tokyo I would learn Japanese."), V{});
  EXPECT_EQ(Read("I'm thinking of moving to Ljubljana."), V{});
  EXPECT_EQ(Read("Do you live in Bergen?"), V{});
  EXPECT_EQ(Read("Where should I live in Canada?"), V{});
  EXPECT_EQ(Read("Please remind me to email Sam."), V{});
  EXPECT_EQ(Read("Can you call me Max from now on?"), V{});
}

TEST(Slots, SmallTalkGivesNothing) {
  EXPECT_EQ(Read("Thanks, that was really helpful!"), V{});
  EXPECT_EQ(Read("I'm a bit sleepy this afternoon."), V{});
  EXPECT_EQ(Read("I always forget where I put my keys."), V{});
  EXPECT_FALSE(ExtractSlots("What a lovely day it is.").own);
  EXPECT_TRUE(ExtractSlots("I walked the dog.").own);
}

TEST(Slots, Name) {
  EXPECT_EQ(Read("Everyone calls me Bea."), V{"name=Bea"});
  EXPECT_EQ(Read("Please call me Sasha."), V{"name=Sasha"});
  EXPECT_EQ(Read("My name is Rosa Maria Ferreira."), V{"name=Rosa Maria Ferreira"});
  EXPECT_EQ(Read("Hello, I'm Marcus."), V{"name=Marcus"});
  EXPECT_EQ(Read("I'm Marcus.", /*greeting=*/true), V{"name=Marcus"});
  EXPECT_EQ(Read("I'm Marcus."), V{});  // no greeting: not an introduction
  EXPECT_EQ(Read("我的名字是李雷。"), V{"name=李雷"});
}

TEST(Slots, LocationAndOrigin) {
  EXPECT_EQ(Read("I live in Quito with two roommates."), V{"location=Quito"});
  EXPECT_EQ(Read("Nowadays we're in Graz now."), V{"location=Graz"});
  EXPECT_EQ(Read("我搬到了深圳。"), V{"location=深圳"});
  EXPECT_EQ(Read("I'm originally from Belo Horizonte."), V{"origin=Belo Horizonte"});
  EXPECT_EQ(Read("I come from the Isle of Skye."), V{"origin=Isle of Skye"});
  EXPECT_EQ(Read("我来自成都。"), V{"origin=成都"});
  // An indefinite place names nothing.
  EXPECT_EQ(Read("We live in a small village."), V{});
}

TEST(Slots, ANationalityIsTheOrigin) {
  EXPECT_EQ(Read("I'm Dutch."), V{"origin=Dutch"});
  EXPECT_EQ(Read("I am Brazilian."), V{"origin=Brazilian"});
  EXPECT_EQ(Read("We're Mexican, so spicy food is fine."), V{"origin=Mexican"});
  EXPECT_EQ(Read("I'm Italian and I live in Leeds."), (V{"origin=Italian", "location=Leeds"}));
  EXPECT_EQ(Read("Hello, I'm Japanese."), V{"origin=Japanese"});
  EXPECT_EQ(Read("I'm a British nurse."), (V{"origin=British", "role=nurse"}));
  EXPECT_EQ(Read("I'm a Peruvian living in Oslo."), (V{"location=Oslo", "origin=Peruvian"}));
  // A name, a faith, a full name and a sentence without capitals are no nationality.
  EXPECT_EQ(Read("Hi, I'm Julian."), V{"name=Julian"});
  EXPECT_EQ(Read("I'm Brian."), V{});
  EXPECT_EQ(Read("I'm Christian."), V{});
  EXPECT_EQ(Read("I'm Morgan Lee."), V{});
  EXPECT_EQ(Read("i'm dutch"), V{});
  EXPECT_EQ(Read("I'm not Danish."), V{});
}

TEST(Slots, AChainOfMovesEndsAtItsLastDestination) {
  // In order: the last is current, the earlier ones become its history.
  EXPECT_EQ(Read("I moved to Leeds and then to York."), (V{"location=Leeds", "location=York"}));
  EXPECT_EQ(Read("We relocated to Ghent, then on to Antwerp."),
            (V{"location=Ghent", "location=Antwerp"}));
  EXPECT_EQ(Read("I moved from Turin to Milan last year."),
            (V{"location=Turin", "location=Milan"}));
  // Where the user moved from alone is no current location.
  EXPECT_EQ(Read("I moved from Turin in 2019."), V{});
  EXPECT_EQ(Read("I moved back to Cork."), V{"location=Cork"});
}

TEST(Slots, EmployerAndRole) {
  EXPECT_EQ(Read("I joined Globex in the spring."), V{"employer=Globex"});
  EXPECT_EQ(Read("I work as a pharmacist."), V{"role=pharmacist"});
  EXPECT_EQ(Read("I'm employed at Siemens as a test engineer."),
            (V{"employer=Siemens", "role=test engineer"}));
  EXPECT_EQ(Read("I'm an accountant at Deloitte."), (V{"employer=Deloitte", "role=accountant"}));
  EXPECT_EQ(Read("I work for Umbrella Corp as a lab technician."),
            (V{"employer=Umbrella Corp", "role=lab technician"}));
  EXPECT_EQ(Read("I'm a paramedic at the regional clinic."), V{"role=paramedic"});
  EXPECT_EQ(Read("I work at a bakery."), V{});
  EXPECT_EQ(Read("我在腾讯工作。"), V{"employer=腾讯"});
  EXPECT_EQ(Read("我在一家医院工作。"), V{});
}

TEST(Slots, InChineseWorkingInAPlaceNamesNoEmployer) {
  EXPECT_EQ(Read("我在谷歌工作。"), V{"employer=谷歌"});
  EXPECT_EQ(Read("我在北京工作。"), V{});
  EXPECT_EQ(Read("我在杭州上班。"), V{});
  EXPECT_EQ(Read("我在深圳市工作。"), V{});
  EXPECT_EQ(Read("我在家工作。"), V{});
  EXPECT_EQ(Read("我在国外工作。"), V{});
  // 在X的Y工作: Y is the workplace.
  EXPECT_EQ(Read("我在上海的阿里巴巴上班。"), V{"employer=阿里巴巴"});
  EXPECT_EQ(Read("我在成都的一家公司工作。"), V{});
}

TEST(Slots, ManagerPartnerChildrenPet) {
  EXPECT_EQ(Read("I report to Jamal Price."), V{"manager=Jamal Price"});
  EXPECT_EQ(Read("My supervisor is now Lee Ann."), V{"manager=Lee Ann"});
  EXPECT_EQ(Read("I'm a part-time illustrator."), V{"role=part-time illustrator"});
  EXPECT_EQ(Read("Since Monday Jamal Price is my new boss."), V{"manager=Jamal Price"});
  EXPECT_EQ(Read("I'm married to Ines."), V{"partner=Ines"});
  EXPECT_EQ(Read("We have a son named Theo."), V{"children=Theo"});
  EXPECT_EQ(Read("I have three daughters, Mia, Zoe and Ivy."), V{"children=Mia, Zoe and Ivy"});
  EXPECT_EQ(Read("I have a parrot called Kiwi."), V{"pet=Kiwi (parrot)"});
  EXPECT_EQ(Read("My dog's name is Pepper."), V{"pet=Pepper (dog)"});
  EXPECT_EQ(Read("My son is named Ezra."), V{"children=Ezra"});
  EXPECT_EQ(Read("My partner's name is Robin."), V{"partner=Robin"});
}

TEST(Slots, DietAllergyBirthdayTimezoneLanguage) {
  EXPECT_EQ(Read("I'm strictly keto these days."), V{"diet=keto"});
  EXPECT_EQ(Read("I switched to a paleo diet."), V{"diet=paleo"});
  EXPECT_EQ(Read("I baked a paleo cake for my niece."), V{});
  EXPECT_EQ(Read("I have a shellfish allergy."), V{"allergy=shellfish"});
  EXPECT_EQ(Read("I'm allergic to cats and dust."), V{"allergy=cats and dust"});
  EXPECT_EQ(Read("我对猫毛过敏。"), V{"allergy=猫毛"});
  EXPECT_EQ(Read("I was born on 2 June."), V{"birthday=2 June"});
  EXPECT_EQ(Read("My timezone is America/Denver."), V{"timezone=America/Denver"});
  EXPECT_EQ(Read("我的时区是Asia/Tokyo。"), V{"timezone=Asia/Tokyo"});
  EXPECT_EQ(Read("I'm fluent in German and Dutch."), V{"language=German and Dutch"});
}

TEST(Slots, ASentenceWithoutCapitalsStillNamesThings) {
  EXPECT_EQ(Read("i live in austin and i work at home"), V{"location=austin"});
  EXPECT_EQ(Read("I joined yoga classes."), V{});
  EXPECT_EQ(Read("I live in tbilisi."), V{"location=tbilisi"});
  EXPECT_EQ(Read("I'm in the office now."), V{});
  EXPECT_EQ(Read("I work at a bakery."), V{});
}

TEST(Slots, PreferencesKeepWhatTheyAreAboutAndWhatIsPreferred) {
  EXPECT_EQ(Read("I like my tea with milk."), V{"pref:tea=with milk"});
  EXPECT_EQ(Read("I prefer invoices as PDF files."), V{"pref:invoices=PDF files"});
  EXPECT_EQ(Read("I prefer large fonts in all my apps."), V{"pref:large fonts=in all my apps"});
  EXPECT_EQ(Read("I love aisle seats."), V{"pref:aisle seats=loves"});
  EXPECT_EQ(Read("I enjoy swimming in the sea."), V{"pref:swimming=in the sea"});
  EXPECT_EQ(Read("I prefer trains over planes."), V{"pref:trains=preferred over planes"});
  EXPECT_EQ(Read("I dislike calls after 6pm."), V{"pref:calls=dislikes calls after 6pm"});
  EXPECT_EQ(Read("I can't stand loud restaurants."),
            V{"pref:loud restaurants=dislikes loud restaurants"});
  EXPECT_EQ(Read("My favourite editor is Helix."), V{"pref:editor=Helix"});
  EXPECT_EQ(Read("I usually go running on Sundays."), V{"pref:sundays=go running"});
  EXPECT_EQ(Read("我喜欢乌龙茶。"), V{"pref:乌龙茶=喜欢"});
  for (std::string_view s : {"I like dark roast coffee.", "I prefer spreadsheets in CSV."}) {
    for (const SlotStatement& st : ExtractSlots(s).statements) EXPECT_NE(st.key, st.value) << s;
  }
  EXPECT_EQ(Read("Do you like sushi?"), V{});
  EXPECT_EQ(Read("I usually drink cocoa in the evenings."), V{"pref:evenings=drink cocoa"});
  EXPECT_EQ(Read("I love you guys, haha."), V{});
  EXPECT_EQ(Read("I hate it when the bus is late."), V{});
}

TEST(Slots, NoLongerEndsTheSlotWithoutANewValue) {
  EXPECT_EQ(Read("I don't work at Initech anymore."), V{"employer="});
  EXPECT_EQ(Read("I'm no longer kosher."), V{"diet="});
  EXPECT_EQ(Read("I no longer live in Vienna."), V{"location="});
  EXPECT_EQ(Read("I was laid off from Globex."), V{"employer="});
  EXPECT_EQ(Read("I left Globex in May."), V{"employer="});
  EXPECT_EQ(Read("我不再在腾讯工作了。"), V{"employer="});
  EXPECT_EQ(Read("I no longer report to Dana Kim."), V{"manager="});
  EXPECT_EQ(Read("Dana Kim is no longer my manager."), V{"manager="});
  EXPECT_EQ(Read("Hugo isn't my boss anymore."), V{"manager="});
  // Someone else's relation is not the user's.
  EXPECT_EQ(Read("Hugo is no longer my sister's boss."), V{});
  // Leaving a place for another is no job ending.
  EXPECT_EQ(Read("I left Bern for Basel."), V{});
  // A plain negation states nothing.
  EXPECT_EQ(Read("I don't live in Vienna."), V{});
}

TEST(Slots, APastRelationIsNoCurrentOne) {
  EXPECT_EQ(Read("My manager was Dana Kim."), V{});
  EXPECT_EQ(Read("My boss was Hugo Lind, but now I report to Mei Chen."), V{"manager=Mei Chen"});
}

TEST(Slots, AnEndAndANewValueInOneSentenceKeepTheNewValue) {
  EXPECT_EQ(Read("I'm not keto anymore, just paleo."), V{"diet=paleo"});
}

TEST(Slots, AHostileSentenceStaysBounded) {
  std::string s = "I live in Quito";
  for (int i = 0; i < 5000; ++i) s += " and my wife Ann, my boss Bo";
  EXPECT_LE(ExtractSlots(s).statements.size(), 32u);
  EXPECT_TRUE(ExtractSlots(std::string(100000, ',')).statements.empty());
}

TEST(Slots, ListSlotsAreNamed) {
  EXPECT_TRUE(IsListSlot(kSlotPet));
  EXPECT_FALSE(IsListSlot(kSlotEmployer));
}

TEST(Slots, TheSlotTableNamesItsKeys) {
  for (std::string_view key :
       {"name", "location", "origin", "employer", "role", "manager", "partner", "children", "pet",
        "diet", "allergy", "birthday", "timezone", "language"}) {
    EXPECT_TRUE(IsSlotKey(key)) << key;
  }
  EXPECT_FALSE(IsSlotKey("editor"));
}

TEST(FacetsFromMessage, GivesEverySlotOfEverySentenceWithItsEvidence) {
  const std::vector<Facet> facets = FacetsFromMessage(
      "Hi there! I live in Quito and I work at Initech. I think I prefer tea in the morning.",
      "seg-1");
  ASSERT_EQ(facets.size(), 3u);
  EXPECT_EQ(facets[0].facet_type, kFacetContext);
  EXPECT_EQ(facets[0].key, "location");
  EXPECT_EQ(facets[0].value, "Quito");
  EXPECT_EQ(facets[0].evidence, "I live in Quito and I work at Initech.");
  EXPECT_EQ(facets[0].segment_ids, std::vector<std::string>{"seg-1"});
  EXPECT_DOUBLE_EQ(facets[0].confidence, kPlainConfidence);
  EXPECT_EQ(facets[1].key, "employer");
  EXPECT_EQ(facets[2].facet_type, kFacetPreference);
  EXPECT_EQ(facets[2].key, "tea");
  EXPECT_EQ(facets[2].value, "morning");
  EXPECT_DOUBLE_EQ(facets[2].confidence, kHedgedConfidence);
}

TEST(FacetsFromMessage, APlaceTheUserLivesInIsNoEmployer) {
  const std::vector<Facet> facets = FacetsFromMessage("我住在成都。我在成都工作。", "");
  ASSERT_EQ(facets.size(), 1u);
  EXPECT_EQ(facets[0].key, "location");
  EXPECT_EQ(facets[0].value, "成都");
}

TEST(FacetsFromMessage, SmallTalkAndOtherPeopleGiveNoFacet) {
  EXPECT_TRUE(FacetsFromMessage("Haha, my cousin lives in Naples. Thanks a lot!", "").empty());
  EXPECT_TRUE(FacetsFromMessage("I'm heading out for lunch, back soon.", "").empty());
}

}  // namespace
}  // namespace mnemo::archivist

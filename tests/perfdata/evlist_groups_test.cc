// Evlist::ApplyGroups against perf 6.1's process_group_desc: leaders at their indices,
// the nr_members - 1 evsels after each join it, named groups keep their name and
// "{anon_group}" none; a description perf rejects leaves no group at all. ForceLeader
// (report --group on a file without groups) makes one group of every evsel.
#include <gtest/gtest.h>

#include "perfdata/evlist.h"

namespace perflens {
namespace {

Evlist Five(const std::vector<GroupDesc>& groups) {
  Evlist e;
  for (uint64_t i = 0; i < 5; ++i) {
    EventAttr a;
    a.type = 1;
    a.config = i;
    e.Add(a, {100 + i});
  }
  e.Finish({}, groups);
  return e;
}

TEST(EvlistGroups, LeadersAndMembersFromGroupDesc) {
  const Evlist e = Five({{"{anon_group}", 0, 2}, {"mine", 2, 3}});
  const auto& ev = e.evsels();
  EXPECT_EQ(e.nr_groups(), 2u);
  EXPECT_TRUE(ev[0].is_group_leader());
  EXPECT_EQ(ev[0].nr_members, 2u);
  EXPECT_EQ(ev[0].group_name, "");
  EXPECT_EQ(ev[1].leader, 0);
  EXPECT_FALSE(ev[1].is_group_leader());
  EXPECT_EQ(ev[2].nr_members, 3u);
  EXPECT_EQ(ev[2].group_name, "mine");
  EXPECT_EQ(ev[3].leader, 2);
  EXPECT_EQ(ev[4].leader, 2);
  // The id → evsel index the PERF_SAMPLE_READ split uses.
  ASSERT_NE(e.FindById(103), nullptr);
  EXPECT_EQ(e.FindById(103)->index, 3);
  EXPECT_EQ(e.FindById(7), nullptr);
}

TEST(EvlistGroups, InvalidDescriptionsLeaveNoGroups) {
  for (const auto& groups : std::vector<std::vector<GroupDesc>>{
           {{"{anon_group}", 0, 3}, {"{anon_group}", 1, 2}},  // a leader inside a group
           {{"{anon_group}", 3, 4}},                          // members past the last evsel
           {{"{anon_group}", 9, 2}},                          // no such leader
           {{"{anon_group}", 0, 0}}}) {                       // no members at all
    const Evlist e = Five(groups);
    EXPECT_EQ(e.nr_groups(), 0u);
    for (const Evsel& ev : e.evsels()) {
      EXPECT_TRUE(ev.is_group_leader());
      EXPECT_EQ(ev.nr_members, 1u);
    }
  }
}

TEST(EvlistGroups, ForceLeaderOnlyWithoutGroups) {
  std::vector<Evsel> plain = Five({}).evsels();
  ASSERT_TRUE(ForceLeader(&plain));
  EXPECT_EQ(plain[0].nr_members, 5u);
  for (const Evsel& ev : plain) EXPECT_EQ(ev.leader, 0);
  std::vector<Evsel> grouped = Five({{"{anon_group}", 1, 2}}).evsels();
  EXPECT_FALSE(ForceLeader(&grouped));
  EXPECT_EQ(grouped[0].nr_members, 1u);
  EXPECT_EQ(grouped[1].nr_members, 2u);
}

}  // namespace
}  // namespace perflens

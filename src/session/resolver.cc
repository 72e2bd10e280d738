#include "session/resolver.h"

#include <algorithm>

namespace perflens {

const Symbol* Resolver::FindSymbol(Dso* dso, uint64_t dso_addr) {
  size_t h = (dso_addr * 0x9E3779B97F4A7C15ULL ^ static_cast<uint64_t>(dso->id()) * 0xC2B2AE3D27D4EB4FULL) >> 52;
  CacheSlot& slot = cache_[h & (cache_.size() - 1)];
  if (slot.dso == dso && slot.dso_addr == dso_addr) return slot.sym;
  const Symbol* sym = symbolizer_->Find(*dso, dso_addr);
  slot = {dso, dso_addr, sym};
  return sym;
}

bool Resolver::InlineSymbols(const AddrLocation& al, std::vector<const Symbol*>* syms) {
  syms->clear();
  if (!al.dso || !al.sym || al.dso->is_kernel()) return false;
  if (inline_cache_.empty()) inline_cache_.resize(4096);
  size_t h = (al.dso_addr * 0x9E3779B97F4A7C15ULL ^ static_cast<uint64_t>(al.dso->id()) * 0xC2B2AE3D27D4EB4FULL) >> 52;
  InlineSlot& slot = inline_cache_[h & (inline_cache_.size() - 1)];
  if (slot.dso == al.dso && slot.dso_addr == al.dso_addr) {
    syms->assign(slot.syms.begin(), slot.syms.begin() + slot.n);
    return slot.n != 0;
  }
  const SymbolFrames frames = symbolizer_->Module(*al.dso)->FramesAt(al.dso_addr);
  const bool expand = frames.size() > 1 || (frames.size() == 1 && frames[0].sym != al.sym);
  if (expand)
    for (const SymbolFrame& f : frames) syms->push_back(f.sym);
  if (syms->size() <= kInlineCached) {
    slot.dso = al.dso;
    slot.dso_addr = al.dso_addr;
    slot.n = static_cast<uint8_t>(syms->size());
    std::copy(syms->begin(), syms->end(), slot.syms.begin());
  }
  return expand;
}

namespace {

// The level and the early outs of thread__find_symbol; false when no map lookup follows.
bool StartLocation(uint16_t cpumode, uint64_t ip, AddrLocation* al) {
  al->cpumode = cpumode;
  al->dso_addr = ip;
  switch (cpumode) {
    case kMiscKernel: al->level = 'k'; return true;
    case kMiscUser: al->level = '.'; return true;
    case kMiscGuestKernel: al->level = 'g'; return false;
    case kMiscGuestUser: al->level = 'u'; return false;
    default: al->level = 'H'; return false;
  }
}

}  // namespace

void Resolver::LookupMap(const Maps* maps, uint64_t ip, AddrLocation* al) {
  if (!maps) return;
  // Kernel and user frames alternate in a chain: one slot for each address space kind.
  LastMap& last = last_map_[maps == &machine_->kernel_maps() ? 1 : 0];
  const Map* map;
  if (last.maps_id == maps->id() && last.generation == maps->generation() && last.map->Contains(ip)) {
    map = last.map;
  } else {
    map = maps->Find(ip);
    if (map) last = {maps->id(), maps->generation(), map};
  }
  if (map && map->dso) {
    al->dso = map->dso;
    al->dso_addr = map->MapIp(ip);
  } else if (!map && maps == &machine_->kernel_maps()) {
    LookupKernelBeyondText(ip, al);
  }
}

void Resolver::LookupKernelBeyondText(uint64_t ip, AddrLocation* al) {
  Dso* kernel = machine_->kernel_dso();
  if (!kernel) return;
  const Map* text = machine_->kernel_maps().Find(machine_->kernel_ref_addr());
  if (!text || text->dso != kernel || ip < text->end) return;
  if (!FindSymbol(kernel, text->MapIp(ip))) return;
  al->dso = kernel;
  al->dso_addr = text->MapIp(ip);
}

AddrLocation Resolver::ResolveMap(const Thread* thread, uint16_t cpumode, uint64_t ip) {
  AddrLocation al;
  if (StartLocation(cpumode, ip, &al)) LookupMap(machine_->MapsFor(thread, cpumode), ip, &al);
  return al;
}

AddrLocation Resolver::Resolve(const Thread* thread, uint16_t cpumode, uint64_t ip) {
  AddrLocation al;
  if (!StartLocation(cpumode, ip, &al)) return al;
  // perf 6.1 does not retry a user-mode ip in the kernel maps: such samples are
  // "[unknown]" (checked on perf.data.lost_samples-4.4).
  const Maps* maps = machine_->MapsFor(thread, cpumode);
  if (!maps) return al;
  const uint64_t id = maps->id(), generation = maps->generation();
  LocationSlot& slot = locations_[LocationIndex(id, ip)];
  if (slot.maps_id == id && slot.generation == generation && slot.ip == ip) return slot.al;
  LookupMap(maps, ip, &al);
  if (al.dso) al.sym = FindSymbol(al.dso, al.dso_addr);
  slot = {id, generation, ip, al};
  return al;
}

}  // namespace perflens

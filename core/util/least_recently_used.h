// Eviction for small caches kept in a std::map whose values carry a `last_used` stamp
// (a counter the cache advances on each use): the registrar's prepared searches and
// feature caches, MapFeatureCache's tiles. A linear scan: these maps hold a few to a
// few dozen entries. Thread: the caller's (the map is not shared).
#pragma once

#include <cstddef>

namespace skytrace {

// Erases the entries with the smallest `second.last_used` until the map has fewer than
// `capacity` entries, i.e. room for one more.
template <typename Map>
void evictLeastRecentlyUsed(Map& map, std::size_t capacity) {
  while (!map.empty() && map.size() >= capacity) {
    auto oldest = map.begin();
    for (auto it = map.begin(); it != map.end(); ++it)
      if (it->second.last_used < oldest->second.last_used) oldest = it;
    map.erase(oldest);
  }
}

}  // namespace skytrace

// Lost Cities sample bot "cpp-greedy": a one-turn greedy heuristic in C++17, written from
// proto/arena/v1/ and docs/protocol.md alone (no arena code).
//
// It connects to the gRPC target in $ARENA_SOCKET, calls arena.v1.BotService/Play, sends Hello,
// answers every DecisionRequest with the best-scoring of its legal_actions (as action_text, so
// the answer is always legal), and after MatchEnd half-closes the stream and exits with status 0.
// The code generated from the .proto files (gen/, by `make`) is never committed.
//
// The heuristic scores each legal action "<play|discard> <card> <deck|draw C>":
//   * play: extend a started expedition with the smallest gap; start one only with enough of its
//     colour in hand to beat the 20-point cost, and not late in the round; wagers only on a
//     colour not started yet and with a strong hand;
//   * discard: cards that are dead for us (below our expedition's top) first, never a card the
//     opponent can still place on a started expedition;
//   * draw: a discard pile's top card that extends our expedition with a small gap, else the deck.
// Ties go to the first action in the referee's (stable) order, so the bot is deterministic.

#include <grpcpp/grpcpp.h>

#include <array>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "arena/v1/bot.grpc.pb.h"
#include "arena/v1/bot.pb.h"

namespace {

constexpr const char* kBotName = "cpp-greedy";
constexpr const char* kBotVersion = "1";
constexpr unsigned kProtocolVersion = 1;
constexpr int kMaxReceiveBytes = 16 * 1024 * 1024;  // the referee's messages are at most 16 MiB
const std::string kColours = "YBWGR";

// A card of the card grammar: a colour letter, then 2..10 or X (a wager, value 0).
struct Card {
  int colour = -1;
  int value = 0;
};

Card ParseCard(const std::string& text) {
  Card card;
  if (text.empty()) return card;
  card.colour = static_cast<int>(kColours.find(text[0]));
  std::string rest = text.substr(1);
  card.value = rest == "X" ? 0 : std::atoi(rest.c_str());
  return card;
}

// One legal action text, split: "play R5 deck", "discard Y10 draw B".
struct Move {
  bool discard = false;
  Card card;
  int draw = -1;  // -1: the deck; 0..4: that colour's discard pile
};

Move ParseMove(const std::string& text) {
  std::istringstream words(text);
  std::string verb, card, source, colour;
  words >> verb >> card >> source >> colour;
  Move move;
  move.discard = verb == "discard";
  move.card = ParseCard(card);
  if (source == "draw" && !colour.empty()) move.draw = static_cast<int>(kColours.find(colour[0]));
  return move;
}

using Row = std::vector<Card>;

Row RowOf(const arena::v1::LostCitiesCardRow& row) {
  Row out;
  for (const auto& text : row.cards()) out.push_back(ParseCard(text));
  return out;
}

// The highest number on an expedition (1 when only wagers are down, 0 when it is empty).
int TopValue(const Row& expedition) {
  int top = 0;
  for (const Card& card : expedition) top = card.value == 0 ? std::max(top, 1) : card.value;
  return top;
}

class Greedy {
 public:
  explicit Greedy(const arena::v1::LostCitiesObservation& view) {
    const unsigned me = view.seat();
    for (const auto& text : view.hand()) hand_.push_back(ParseCard(text));
    for (int c = 0; c < 5; ++c) {
      mine_[c] = RowOf(view.expeditions(me).expeditions(c));
      theirs_[c] = RowOf(view.expeditions(1 - me).expeditions(c));
      piles_[c] = RowOf(view.discard_piles(c));
    }
    deck_count_ = static_cast<int>(view.deck_count());
  }

  double Score(const Move& move) const {
    double score = move.discard ? DiscardScore(move.card) : PlayScore(move.card);
    return score + DrawScore(move);
  }

 private:
  // The values of the number cards of a colour in hand above a value.
  int HandSum(int colour, int above) const {
    int sum = 0;
    for (const Card& card : hand_) {
      if (card.colour == colour && card.value > above) sum += card.value;
    }
    return sum;
  }

  double PlayScore(const Card& card) const {
    const Row& expedition = mine_[card.colour];
    const int turns_left = (deck_count_ + 1) / 2;
    if (!expedition.empty()) {
      if (card.value == 0) return 1.0;  // a wager after the start is legal only on wagers
      const int gap = card.value - std::max(TopValue(expedition), 1) - 1;
      return 10.0 - 1.5 * gap;
    }
    const int potential = HandSum(card.colour, card.value == 0 ? 0 : card.value - 1);
    if (card.value == 0) return potential >= 27 && turns_left > 12 ? 4.0 : -20.0;
    if (potential < 20 || turns_left < 5) return -10.0 + potential / 4.0;
    return 3.0 + (potential - 20) / 4.0 - 0.3 * (card.value - 2);
  }

  double DiscardScore(const Card& card) const {
    const Row& own = mine_[card.colour];
    const Row& theirs = theirs_[card.colour];
    double score = -0.5 - card.value / 10.0;
    if (!own.empty() && (card.value == 0 || card.value < TopValue(own))) score += 3.0;  // dead
    if (!theirs.empty() && (card.value == 0 ? TopValue(theirs) <= 1
                                            : card.value > TopValue(theirs))) {
      score -= 6.0;  // it would feed the opponent's expedition
    }
    return score;
  }

  double DrawScore(const Move& move) const {
    if (move.draw < 0) return 0.0;
    const Row& pile = piles_[move.draw];
    if (pile.empty()) return -5.0;  // never legal: the referee lists only non-empty piles
    const Card& top = pile.back();
    const Row& own = mine_[top.colour];
    if (!own.empty() && top.value > TopValue(own)) {
      const int gap = top.value - std::max(TopValue(own), 1) - 1;
      return gap <= 2 ? 2.5 - gap : -1.0;
    }
    const Row& theirs = theirs_[top.colour];
    if (!theirs.empty() && top.value > TopValue(theirs)) return 0.5;  // deny it to them
    return -1.0;
  }

  std::vector<Card> hand_;
  std::array<Row, 5> mine_, theirs_, piles_;
  int deck_count_ = 0;
};

// The best of the legal actions (the first on ties); empty when there are none.
std::string Choose(const arena::v1::DecisionRequest& request) {
  if (!request.observation().has_lost_cities()) {
    return request.legal_actions().empty() ? "" : request.legal_actions(0);
  }
  const Greedy greedy(request.observation().lost_cities());
  std::string best;
  double best_score = 0;
  for (const auto& text : request.legal_actions()) {
    const double score = greedy.Score(ParseMove(text));
    if (best.empty() || score > best_score) {
      best = text;
      best_score = score;
    }
  }
  return best;
}

int Play(const std::string& target) {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(kMaxReceiveBytes);
  auto channel = grpc::CreateCustomChannel(target, grpc::InsecureChannelCredentials(), args);
  auto stub = arena::v1::BotService::NewStub(channel);
  grpc::ClientContext context;
  context.set_wait_for_ready(true);
  auto stream = stub->Play(&context);

  arena::v1::BotMessage hello;
  hello.mutable_hello()->set_bot_name(kBotName);
  hello.mutable_hello()->set_bot_version(kBotVersion);
  hello.mutable_hello()->set_protocol_version(kProtocolVersion);
  if (!stream->Write(hello)) {
    std::cerr << kBotName << ": could not send Hello to " << target << std::endl;
    return 1;
  }
  arena::v1::RefereeMessage message;
  bool ended = false;
  while (!ended && stream->Read(&message)) {
    switch (message.kind_case()) {
      case arena::v1::RefereeMessage::kMatchStart:
        std::cerr << kBotName << ": match " << message.match_start().match_id() << ", seat "
                  << message.match_start().seat() << std::endl;
        break;
      case arena::v1::RefereeMessage::kDecision: {
        arena::v1::BotMessage answer;
        answer.mutable_decision()->set_decision_id(message.decision().decision_id());
        answer.mutable_decision()->set_action_text(Choose(message.decision()));
        if (!stream->Write(answer)) ended = true;
        break;
      }
      case arena::v1::RefereeMessage::kMatchEnd:
        std::cerr << kBotName << ": match over, result " << message.match_end().result()
                  << std::endl;
        ended = true;
        break;
      default:  // RoundEnd: nothing to do
        break;
    }
  }
  stream->WritesDone();  // half-close: the bot has nothing more to say
  const grpc::Status status = stream->Finish();
  if (!ended) {
    std::cerr << kBotName << ": the stream ended before MatchEnd: " << status.error_message()
              << std::endl;
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "--version") {
    std::cout << kBotName << " " << kBotVersion << std::endl;
    return 0;
  }
  const char* target = std::getenv("ARENA_SOCKET");
  if (target == nullptr || *target == '\0') {
    std::cerr << kBotName << ": ARENA_SOCKET is not set: run this bot through the arena "
              << "(`arena match ...`)" << std::endl;
    return 2;
  }
  return Play(target);
}

// A frontend's use of the generated types: it compiles only if the
// operations' shapes are what the schema says.
import type { CountQuery, SolutionsPageQuery, BoardProgressSubscription } from './generated/operations';

export function total(answer: CountQuery): string | undefined {
  return answer.count?.total ?? undefined; // null: not known yet
}

export function placements(answer: SolutionsPageQuery): number[][] {
  return (answer.solutions?.edges ?? []).map((edge) => edge.node.placement);
}

export function progressOf(event: BoardProgressSubscription): string {
  return event.boardProgress.state;
}

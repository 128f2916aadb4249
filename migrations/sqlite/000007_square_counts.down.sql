DROP TABLE square_counts;
